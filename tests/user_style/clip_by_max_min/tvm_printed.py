# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((8,), dtype="float32")) -> R.Tensor((8,), dtype="float32"):
        gv: R.Tensor((8,), dtype="float32") = R.multiply(x, R.const(3.0, "float32"))
        gv1: R.Tensor((8,), dtype="float32") = R.minimum(gv, R.const(1.0, "float32"))
        gv2: R.Tensor((8,), dtype="float32") = R.maximum(gv1, R.const(-1.0, "float32"))
        return gv2
