# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((3, 5), dtype="float32"), a1: R.Tensor((4, 1), dtype="float32"), a2: R.Tensor((4, 1), dtype="int64")) -> R.Tensor((4, 1), dtype="int64"):
        gv: R.Tensor((4, 1), dtype="int64") = R.multinomial_from_uniform(a0, a1, a2, dtype="int64")
        return gv
