# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((2, 5, 6), dtype="float32")) -> R.Tuple(R.Tensor((2,), dtype="int32"), R.Tensor((2, 5, 6), dtype="float32"), R.Tensor((2, 5), dtype="int32")):
        gv: R.Tuple(R.Tensor((2,), dtype="int32"), R.Tensor((2, 5, 6), dtype="float32"), R.Tensor((2, 5), dtype="int32")) = R.vision.get_valid_counts(a0, score_threshold=0.0, id_index=0, score_index=1)
        return gv
