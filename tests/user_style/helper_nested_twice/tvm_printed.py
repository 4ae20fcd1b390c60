# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def block(x: R.Tensor((2, 2), dtype="float32"), w: R.Tensor((2, 2), dtype="float32")) -> R.Tensor((2, 2), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((2, 2), dtype="float32") = R.matmul(x, w, out_dtype=None)
            y: R.Tensor((2, 2), dtype="float32") = R.nn.relu(lv)
            R.output(y)
        return y

    @R.function
    def main(x: R.Tensor((2, 2), dtype="float32"), w: R.Tensor((2, 2), dtype="float32")) -> R.Tensor((2, 2), dtype="float32"):
        cls = Module
        gv: R.Tensor((2, 2), dtype="float32") = cls.block(x, w)
        gv1: R.Tensor((2, 2), dtype="float32") = R.permute_dims(w, axes=None)
        gv2: R.Tensor((2, 2), dtype="float32") = cls.block(gv, gv1)
        return gv2
