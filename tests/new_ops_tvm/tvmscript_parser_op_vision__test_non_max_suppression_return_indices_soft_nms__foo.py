@R.function
def foo(
    data: R.Tensor((2, 5, 6), "float32"),
    valid_count: R.Tensor((2,), "int32"),
    indices: R.Tensor((2, 5), "int32"),
) -> R.Tuple(
    R.Tensor((2, 5, 6), "float32"),
    R.Tensor((2, 5), "int32"),
    R.Tensor((2, 1), "int32"),
):
    gv: R.Tuple(
        R.Tensor((2, 5, 6), "float32"),
        R.Tensor((2, 5), "int32"),
        R.Tensor((2, 1), "int32"),
    ) = R.vision.non_max_suppression(
        data,
        valid_count,
        indices,
        max_output_size=-1,
        iou_threshold=0.5,
        force_suppress=False,
        top_k=3,
        coord_start=2,
        score_index=1,
        id_index=0,
        return_indices=True,
        invalid_to_bottom=False,
        soft_nms_sigma=0.5,
        score_threshold=0.0,
    )
    return gv
