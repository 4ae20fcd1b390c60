@tvm.script.ir_module
class NMSModule:
    @R.function
    def main(
        boxes: R.Tensor((1, 5, 4), "float32"),
        scores: R.Tensor((1, 2, 5), "float32"),
    ) -> R.Tuple(R.Tensor(dtype="int64", ndim=2), R.Tensor((1,), "int64")):
        max_output_boxes_per_class = R.const(3, "int64")
        iou_threshold = R.const(0.5, "float32")
        score_threshold = R.const(0.1, "float32")
        return R.vision.all_class_non_max_suppression(
            boxes, scores, max_output_boxes_per_class, iou_threshold, score_threshold, "onnx"
        )
