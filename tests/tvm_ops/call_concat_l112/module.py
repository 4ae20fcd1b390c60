# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tuple(R.Tensor((2, 3), dtype="float32"), R.Tensor((4, 3), dtype="float32"), R.Tensor((1, 3), dtype="float32"))) -> R.Tensor((7, 3), dtype="float32"):
        gv: R.Tensor((7, 3), dtype="float32") = R.concat(a0, axis=0)
        return gv
