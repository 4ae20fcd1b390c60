# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def scale_add(a: R.Tensor((4,), dtype="float32"), b: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        gv: R.Tensor((4,), dtype="float32") = R.multiply(a, R.const(2.0, "float32"))
        gv1: R.Tensor((4,), dtype="float32") = R.add(gv, b)
        return gv1

    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), y: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        gv: R.Tensor((4,), dtype="float32") = R.exp(x)
        gv1: R.Tensor((4,), dtype="float32") = cls.scale_add(y, x)
        gv2: R.Tensor((4,), dtype="float32") = cls.scale_add(gv, gv1)
        return gv2
