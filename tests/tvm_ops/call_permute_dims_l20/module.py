# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((32, 16), dtype="float32")) -> R.Tensor((16, 32), dtype="float32"):
        gv: R.Tensor((16, 32), dtype="float32") = R.permute_dims(a0, axes=[1, 0])
        return gv
