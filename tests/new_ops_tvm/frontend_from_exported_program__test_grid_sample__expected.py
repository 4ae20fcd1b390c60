@tvm.script.ir_module
class expected:
    @R.function
    def main(
        input_1: R.Tensor((1, 3, 4, 4), dtype="float32"),
        grid: R.Tensor((1, 2, 2, 2), dtype="float32"),
    ) -> R.Tuple(R.Tensor((1, 3, 2, 2), dtype="float32")):
        with R.dataflow():
            lv: R.Tensor((1, 3, 2, 2), dtype="float32") = R.image.grid_sample(
                input_1,
                grid,
                method="bilinear",
                layout="NCHW",
                padding_mode="zeros",
                align_corners=True,
            )
            gv: R.Tuple(R.Tensor((1, 3, 2, 2), dtype="float32")) = (lv,)
            R.output(gv)
        return gv
