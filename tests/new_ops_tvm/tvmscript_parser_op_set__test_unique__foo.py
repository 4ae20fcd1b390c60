@R.function
def foo(x: R.Tensor((2, 3, 4), dtype="float32")) -> R.Tuple(
    R.Tensor(dtype="float32", ndim=3),
    R.Tensor(dtype="int64", ndim=1),
    R.Tensor(dtype="int64", ndim=1),
):
    gv: R.Tuple(
        R.Tensor(dtype="float32", ndim=3),
        R.Tensor(dtype="int64", ndim=1),
        R.Tensor(dtype="int64", ndim=1),
    ) = R.unique(
        x, sorted=True, return_index=False, return_inverse=True, return_counts=True, axis=1
    )
    return gv
