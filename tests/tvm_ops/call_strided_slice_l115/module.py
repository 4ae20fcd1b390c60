# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((6, 8), dtype="float32")) -> R.Tensor((2, 4), dtype="float32"):
        gv: R.Tensor((2, 4), dtype="float32") = R.strided_slice(a0, (0, 1), (1, 7), (5, 0), (2, -2), assume_inbound=False)
        return gv
