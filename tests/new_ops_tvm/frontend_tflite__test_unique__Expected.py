@I.ir_module
class Expected:
    @R.function
    def main(
        x: R.Tensor((6,), dtype="int32"),
    ) -> R.Tuple(R.Tensor(dtype="int32", ndim=1), R.Tensor(dtype="int64", ndim=1)):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tuple(R.Tensor(dtype="int32", ndim=1), R.Tensor(dtype="int64", ndim=1)) = (
                R.unique(
                    x,
                    R.prim_value(False),
                    R.prim_value(False),
                    R.prim_value(True),
                    R.prim_value(False),
                )
            )
            lv1: R.Tensor(dtype="int32", ndim=1) = lv[0]
            lv2: R.Tensor(dtype="int64", ndim=1) = lv[1]
            gv: R.Tuple(R.Tensor(dtype="int32", ndim=1), R.Tensor(dtype="int64", ndim=1)) = (
                lv1,
                lv2,
            )
            R.output(gv)
        return gv
