# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 2), dtype="float32")) -> R.Tensor((2, 2), dtype="float32"):
        gv: R.Tensor((2, 2), dtype="float32") = R.abs(x)
        gv1: R.Tensor((2, 2), dtype="float32") = R.power(gv, R.const(0.5, "float32"))
        return gv1
