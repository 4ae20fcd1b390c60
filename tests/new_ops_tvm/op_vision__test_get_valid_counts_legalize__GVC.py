@tvm.script.ir_module
class GVC:
    @R.function
    def main(
        data: R.Tensor((1, 5, 6), "float32"),
    ) -> R.Tuple(
        R.Tensor((1,), "int32"),
        R.Tensor((1, 5, 6), "float32"),
        R.Tensor((1, 5), "int32"),
    ):
        gv = R.vision.get_valid_counts(data, score_threshold=0.5, id_index=0, score_index=1)
        return gv
