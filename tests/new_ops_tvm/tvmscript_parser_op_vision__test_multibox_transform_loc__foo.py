@R.function
def foo(
    cls: R.Tensor((1, 3, 5), "float32"),
    loc: R.Tensor((1, 20), "float32"),
    anc: R.Tensor((1, 5, 4), "float32"),
) -> R.Tuple(R.Tensor((1, 5, 4), "float32"), R.Tensor((1, 3, 5), "float32")):
    gv: R.Tuple(R.Tensor((1, 5, 4), "float32"), R.Tensor((1, 3, 5), "float32")) = (
        R.vision.multibox_transform_loc(
            cls,
            loc,
            anc,
            clip=False,
            threshold=0.0,
            variances=(1.0, 1.0, 1.0, 1.0),
            keep_background=True,
        )
    )
    return gv
