# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((6, 3), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((2, 3), dtype="float32") = R.exp(x)
            lv1: R.Tensor((2, 3), dtype="float32") = R.sin(x)
            y: R.Tensor((6, 3), dtype="float32") = R.concat((lv, lv1, x), axis=0)
            R.output(y)
        return y
