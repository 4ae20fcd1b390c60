# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((4, 9), dtype="float32")) -> R.Tuple(R.Tensor((4, 3), dtype="float32"), R.Tensor((4, 3), dtype="int32")):
        gv: R.Tuple(R.Tensor((4, 3), dtype="float32"), R.Tensor((4, 3), dtype="int32")) = R.topk(a0, k=3, axis=1, ret_type="both", largest=True, dtype="int32")
        return gv
