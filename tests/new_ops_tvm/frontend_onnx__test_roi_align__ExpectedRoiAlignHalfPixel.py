@I.ir_module
class ExpectedRoiAlignHalfPixel:
    @R.function
    def main(
        X: R.Tensor((1, 4, 8, 8), dtype="float32"),
        rois: R.Tensor((2, 4), dtype="float32"),
        batch_indices: R.Tensor((2,), dtype="int64"),
    ) -> R.Tensor((2, 4, 3, 3), dtype="float32"):
        R.func_attr({"num_input": 3})
        with R.dataflow():
            lv: R.Tensor((2, 1), dtype="int64") = R.expand_dims(batch_indices, axis=1)
            lv1: R.Tensor((2, 1), dtype="float32") = R.astype(lv, dtype="float32")
            lv2: R.Tensor((2, 4), dtype="float32") = R.add(
                rois, R.const([-0.5, -0.5, -0.5, -0.5], "float32")
            )
            lv3: R.Tensor((2, 5), dtype="float32") = R.concat((lv1, lv2), axis=1)
            gv: R.Tensor((2, 4, 3, 3), dtype="float32") = R.vision.roi_align(
                X,
                lv3,
                pooled_size=(3, 3),
                spatial_scale=1.0,
                sample_ratio=2,
                aligned=True,
                layout="NCHW",
                mode="avg",
            )
            R.output(gv)
        return gv
