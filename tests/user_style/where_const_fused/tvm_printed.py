# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4), dtype="float32")) -> R.Tensor((2, 4), dtype="float32"):
        with R.dataflow():
            c: R.Tensor((2, 4), dtype="bool") = R.greater(x, R.const(0.5, "float32"))
            lv1: R.Tensor((2, 4), dtype="float32") = R.exp(x)
            y: R.Tensor((2, 4), dtype="float32") = R.where(c, lv1, R.const(0.0, "float32"))
            z: R.Tensor((2, 4), dtype="float32") = R.multiply(y, R.const(2.0, "float32"))
            R.output(z)
        return z
