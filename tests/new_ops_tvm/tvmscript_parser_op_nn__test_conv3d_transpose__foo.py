@R.function
def foo(
    x: R.Tensor((2, 3, 8, 8, 8), "float16"), w: R.Tensor((3, 6, 3, 3, 3), "float16")
) -> R.Tensor((2, 6, 10, 10, 10), "float16"):
    gv: R.Tensor((2, 6, 10, 10, 10), "float16") = R.nn.conv3d_transpose(
        x, w, out_dtype="float16"
    )
    return gv
