# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 3), dtype="float32")) -> R.Tensor((3, 3), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((3, 3), dtype="float32") = R.negative(x)
            a: R.Tensor((3, 3), dtype="float32") = R.exp(lv)
            R.output(a)
        b: R.Tensor((3, 3), dtype="float32") = R.add(a, R.const(1.0, "float32"))
        with R.dataflow():
            c: R.Tensor((3, 3), dtype="float32") = R.divide(R.const(1.0, "float32"), b)
            R.output(c)
        return c
