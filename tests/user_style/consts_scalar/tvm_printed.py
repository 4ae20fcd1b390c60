# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 2), dtype="float32")) -> R.Tensor((2, 2), dtype="float32"):
        gv: R.Tensor((2, 2), dtype="float32") = R.multiply(x, R.const(2.0, "float32"))
        gv1: R.Tensor((2, 2), dtype="float32") = R.add(gv, R.const(1.0, "float32"))
        return gv1
