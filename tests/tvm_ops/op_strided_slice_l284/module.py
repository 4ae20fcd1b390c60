# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((3, 6), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        gv: R.Tensor((2, 3), dtype="float32") = R.strided_slice(a0, (0, 1), (1, 0), (3, 5), (1, 2), assume_inbound=False)
        return gv
