# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((6,), dtype="float32"), y: R.Tensor((6,), dtype="float32")) -> R.Tensor((6,), dtype="float32"):
        gv: R.Tensor((6,), dtype="bool") = R.greater(x, y)
        gv1: R.Tensor((6,), dtype="float32") = R.exp(x)
        gv2: R.Tensor((6,), dtype="float32") = R.negative(y)
        gv3: R.Tensor((6,), dtype="float32") = R.where(gv, gv1, gv2)
        return gv3
