# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 5), dtype="float32")) -> R.Tuple(R.Tensor((3, 2), dtype="float32"), R.Tensor((3, 2), dtype="int64")):
        gv: R.Tuple(R.Tensor((3, 2), dtype="float32"), R.Tensor((3, 2), dtype="int64")) = R.topk(x, k=2, axis=-1, ret_type="both", largest=True, dtype="int64")
        return gv
