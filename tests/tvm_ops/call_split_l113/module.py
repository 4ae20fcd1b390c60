# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((6, 4), dtype="float32")) -> R.Tuple(R.Tensor((2, 4), dtype="float32"), R.Tensor((2, 4), dtype="float32"), R.Tensor((2, 4), dtype="float32")):
        gv: R.Tuple(R.Tensor((2, 4), dtype="float32"), R.Tensor((2, 4), dtype="float32"), R.Tensor((2, 4), dtype="float32")) = R.split(a0, indices_or_sections=3, axis=0)
        return gv
