@tvm.script.ir_module
class ROIAlign:
    @R.function
    def main(
        x: R.Tensor((1, 2, 8, 8), "float32"),
        rois: R.Tensor((1, 5), "float32"),
    ) -> R.Tensor((1, 2, 2, 2), "float32"):
        gv: R.Tensor((1, 2, 2, 2), "float32") = R.vision.roi_align(
            x,
            rois,
            pooled_size=(2, 2),
            spatial_scale=1.0,
            sample_ratio=0,
            layout="NCHW",
            mode="avg",
        )
        return gv
