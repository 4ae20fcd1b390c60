# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((3, 1), dtype="float32")) -> R.Tensor((2, 3, 5), dtype="float32"):
        gv: R.Tensor((2, 3, 5), dtype="float32") = R.broadcast_to(a0, R.shape([2, 3, 5]))
        return gv
