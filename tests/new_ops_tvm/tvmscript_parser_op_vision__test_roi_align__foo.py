@R.function
def foo(
    x: R.Tensor((1, 2, 8, 8), "float32"),
    rois: R.Tensor((2, 5), "float32"),
) -> R.Tensor((2, 2, 3, 3), "float32"):
    gv: R.Tensor((2, 2, 3, 3), "float32") = R.vision.roi_align(
        x,
        rois,
        pooled_size=(3, 3),
        spatial_scale=1.0,
        sample_ratio=2,
        layout="NCHW",
        mode="avg",
    )
    return gv
