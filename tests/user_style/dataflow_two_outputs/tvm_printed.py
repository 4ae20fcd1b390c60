# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), y: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        with R.dataflow():
            lv: R.Tensor((4,), dtype="float32") = R.exp(x)
            a: R.Tensor((4,), dtype="float32") = R.add(lv, y)
            lv2: R.Tensor((4,), dtype="float32") = R.negative(y)
            b: R.Tensor((4,), dtype="float32") = R.multiply(a, lv2)
            R.output(a, b)
        gv: R.Tensor((4,), dtype="float32") = R.subtract(b, a)
        return gv
