# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(data: R.Tensor((2, 8, 6), dtype="float32"), valid_count: R.Tensor((2,), dtype="int32"), indices: R.Tensor((2, 8), dtype="int32")) -> R.Tuple(R.Tensor((2, 8), dtype="int32"), R.Tensor((2, 1), dtype="int32")):
        with R.dataflow():
            gv: R.Tuple(R.Tensor((2, 8), dtype="int32"), R.Tensor((2, 1), dtype="int32")) = R.vision.non_max_suppression(data, valid_count, indices, max_output_size=-1, iou_threshold=0.5, force_suppress=False, top_k=-1, coord_start=2, score_index=1, id_index=0, return_indices=True, invalid_to_bottom=False, soft_nms_sigma=0.0, score_threshold=0.0)
            R.output(gv)
        return gv
