# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((3,), dtype="int64")) -> R.Tensor((3,), dtype="int64"):
        gv: R.Tensor((3,), dtype="int64") = R.square(a0)
        return gv
