# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((4, 8), dtype="float32"), k: R.Tensor((4, 8), dtype="float32"), v: R.Tensor((4, 8), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((8, 4), dtype="float32") = R.permute_dims(k, axes=None)
            lv1: R.Tensor((4, 4), dtype="float32") = R.matmul(q, lv, out_dtype=None)
            lv2: R.Tensor((4, 4), dtype="float32") = R.divide(lv1, R.const(2.8284270763397217, "float32"))
            p: R.Tensor((4, 4), dtype="float32") = R.nn.softmax(lv2, axis=-1)
            o: R.Tensor((4, 8), dtype="float32") = R.matmul(p, v, out_dtype=None)
            R.output(o)
        return o
