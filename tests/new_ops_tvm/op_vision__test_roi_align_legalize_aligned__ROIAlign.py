@tvm.script.ir_module
class ROIAlign:
    @R.function
    def main(
        x: R.Tensor((1, 1, 4, 4), "float32"),
        rois: R.Tensor((1, 5), "float32"),
    ) -> R.Tensor((1, 1, 1, 1), "float32"):
        gv: R.Tensor((1, 1, 1, 1), "float32") = R.vision.roi_align(
            x,
            rois,
            pooled_size=(1, 1),
            spatial_scale=1.0,
            sample_ratio=2,
            aligned=True,
            layout="NCHW",
            mode="avg",
        )
        return gv
