# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 4), dtype="float32"), y: R.Tensor((3, 4), dtype="float32")) -> R.Tensor((3, 4), dtype="float32"):
        gv: R.Tensor((3, 4), dtype="float32") = R.multiply(x, y)
        gv1: R.Tensor((3, 4), dtype="float32") = R.exp(x)
        gv2: R.Tensor((3, 4), dtype="float32") = R.subtract(gv, gv1)
        return gv2
