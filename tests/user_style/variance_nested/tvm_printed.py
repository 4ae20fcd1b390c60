# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 5), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((3, 1), dtype="float32") = R.mean(x, axis=[1], keepdims=True)
            lv1: R.Tensor((3, 5), dtype="float32") = R.subtract(x, lv)
            lv2: R.Tensor((3, 5), dtype="float32") = R.square(lv1)
            v: R.Tensor((3,), dtype="float32") = R.mean(lv2, axis=[1], keepdims=False)
            R.output(v)
        return v
