@tvm.script.ir_module
class GVCModule:
    @R.function
    def main(
        data: R.Tensor((2, 5, 6), "float32"),
    ) -> R.Tuple(
        R.Tensor((2,), "int32"),
        R.Tensor((2, 5, 6), "float32"),
        R.Tensor((2, 5), "int32"),
    ):
        return R.vision.get_valid_counts(data, score_threshold=0.5, id_index=0, score_index=1)
