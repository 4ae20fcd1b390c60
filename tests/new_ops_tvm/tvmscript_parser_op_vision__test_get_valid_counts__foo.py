@R.function
def foo(
    data: R.Tensor((10, 5, 6), "float32"),
) -> R.Tuple(
    R.Tensor((10,), "int32"),
    R.Tensor((10, 5, 6), "float32"),
    R.Tensor((10, 5), "int32"),
):
    gv: R.Tuple(
        R.Tensor((10,), "int32"),
        R.Tensor((10, 5, 6), "float32"),
        R.Tensor((10, 5), "int32"),
    ) = R.vision.get_valid_counts(data, score_threshold=0.5, id_index=0, score_index=1)
    return gv
