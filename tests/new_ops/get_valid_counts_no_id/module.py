# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(data: R.Tensor((2, 5, 6), dtype="float32")) -> R.Tuple(R.Tensor((2,), dtype="int32"), R.Tensor((2, 5, 6), dtype="float32"), R.Tensor((2, 5), dtype="int32")):
        with R.dataflow():
            gv: R.Tuple(R.Tensor((2,), dtype="int32"), R.Tensor((2, 5, 6), dtype="float32"), R.Tensor((2, 5), dtype="int32")) = R.vision.get_valid_counts(data, score_threshold=0.25, id_index=-1, score_index=2)
            R.output(gv)
        return gv
