# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(a0: R.Tensor((2, 5, 6), dtype="float32"), a1: R.Tensor((2,), dtype="int32"), a2: R.Tensor((2, 5), dtype="int32")) -> R.Tuple(R.Tensor((2, 5, 6), dtype="float32"), R.Tensor((2, 5), dtype="int32"), R.Tensor((2, 1), dtype="int32")):
        gv: R.Tuple(R.Tensor((2, 5, 6), dtype="float32"), R.Tensor((2, 5), dtype="int32"), R.Tensor((2, 1), dtype="int32")) = R.vision.non_max_suppression(a0, a1, a2, max_output_size=-1, iou_threshold=0.5, force_suppress=False, top_k=-1, coord_start=2, score_index=1, id_index=0, return_indices=True, invalid_to_bottom=False, soft_nms_sigma=0.5, score_threshold=0.0)
        return gv
