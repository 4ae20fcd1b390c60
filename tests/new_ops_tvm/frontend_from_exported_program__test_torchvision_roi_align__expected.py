@tvm.script.ir_module
class expected:
    @R.function
    def main(
        input_1: R.Tensor((1, 3, 8, 8), dtype="float32"),
        rois: R.Tensor((2, 5), dtype="float32"),
    ) -> R.Tuple(R.Tensor((2, 3, 3, 3), dtype="float32")):
        with R.dataflow():
            lv: R.Tensor((2, 3, 3, 3), dtype="float32") = R.vision.roi_align(
                input_1,
                rois,
                pooled_size=(3, 3),
                spatial_scale=1.0,
                sample_ratio=2,
                layout="NCHW",
                mode="avg",
            )
            gv: R.Tuple(R.Tensor((2, 3, 3, 3), dtype="float32")) = (lv,)
            R.output(gv)
        return gv
