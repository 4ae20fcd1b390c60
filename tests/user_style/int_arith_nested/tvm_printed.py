# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((5,), dtype="int32"), b: R.Tensor((5,), dtype="int32")) -> R.Tensor((5,), dtype="int32"):
        gv: R.Tensor((5,), dtype="int32") = R.multiply(a, b)
        gv1: R.Tensor((5,), dtype="int32") = R.subtract(a, R.const(3, "int32"))
        gv2: R.Tensor((5,), dtype="int32") = R.add(gv, gv1)
        return gv2
