@R.function
def foo(
    boxes: R.Tensor((10, 5, 4), "float32"),
    scores: R.Tensor((10, 8, 5), "float32"),
    max_output_boxes_per_class: R.Tensor((), "int64"),
    iou_threshold: R.Tensor((), "float32"),
    score_threshold: R.Tensor((), "float32"),
) -> R.Tuple(R.Tensor((400, 3), "int64"), R.Tensor((1,), "int64")):
    gv: R.Tuple(R.Tensor((400, 3), "int64"), R.Tensor((1,), "int64")) = (
        R.vision.all_class_non_max_suppression(
            boxes,
            scores,
            max_output_boxes_per_class,
            iou_threshold,
            score_threshold,
            "onnx",
        )
    )
    return gv
