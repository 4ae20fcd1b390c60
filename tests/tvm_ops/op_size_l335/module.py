# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((), dtype="int64"):
        gv: R.Tensor((), dtype="int64") = R.size(a0)
        return gv
