# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((4, 5), dtype="float32"), a1: R.Tensor((2, 5), dtype="int64"), a2: R.Tensor((2, 5), dtype="float32")) -> R.Tensor((4, 5), dtype="float32"):
        gv: R.Tensor((4, 5), dtype="float32") = R.scatter_elements(a0, a1, a2, axis=0, reduction="update")
        return gv
