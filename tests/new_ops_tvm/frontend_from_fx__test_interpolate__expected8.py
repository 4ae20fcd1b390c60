@tvm.script.ir_module
class expected8:
    @R.function
    def main(input_5: R.Tensor((1, 3, 4, 10, 10), dtype="float32")) -> R.Tensor(
        (1, 3, 8, 40, 40), dtype="float32"
    ):
        with R.dataflow():
            lv: R.Tensor((1, 3, 8, 40, 40), dtype="float32") = R.image.resize3d(
                input_5,
                (8, 40, 40),
                roi=[0.000000, 0.000000, 0.000000, 0.000000, 0.000000, 0.000000],
                layout="NCDHW",
                method="linear",
                coordinate_transformation_mode="align_corners",
                rounding_method="",
                cubic_alpha=-0.75,
                cubic_exclude=0,
                extrapolation_value=0,
            )
            gv: R.Tensor((1, 3, 8, 40, 40), dtype="float32") = lv
            R.output(gv)
        return gv
