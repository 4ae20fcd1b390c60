# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((6, 8), dtype="float32")) -> R.Tuple(R.Tensor((6, 2), dtype="float32"), R.Tensor((6, 3), dtype="float32"), R.Tensor((6, 3), dtype="float32")):
        gv: R.Tuple(R.Tensor((6, 2), dtype="float32"), R.Tensor((6, 3), dtype="float32"), R.Tensor((6, 3), dtype="float32")) = R.split(a0, indices_or_sections=[2, 5], axis=1)
        return gv
