@I.ir_module
class Expected:
    @R.function
    def main(
        X: R.Tensor((1, 3, 4, 4), dtype="float32"),
        grid: R.Tensor((1, 2, 2, 2), dtype="float32"),
    ) -> R.Tensor((1, 3, 2, 2), dtype="float32"):
        R.func_attr({"num_input": 2})
        with R.dataflow():
            lv: R.Tensor((1, 2, 2, 2), dtype="float32") = R.permute_dims(
                grid, axes=[0, 3, 1, 2]
            )
            gv: R.Tensor((1, 3, 2, 2), dtype="float32") = R.image.grid_sample(
                X,
                lv,
                method="bicubic",
                layout="NCHW",
                padding_mode="zeros",
                align_corners=False,
            )
            R.output(gv)
        return gv
