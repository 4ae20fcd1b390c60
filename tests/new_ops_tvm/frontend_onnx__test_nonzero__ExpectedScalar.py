@I.ir_module
class ExpectedScalar:
    @R.function
    def main(x: R.Tensor((), dtype="bool")):
        nonzero_numbers = T.int64()
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((1, nonzero_numbers), dtype="int64") = R.match_cast(
                R.nonzero(x), R.Tensor((1, nonzero_numbers), dtype="int64")
            )
            gv: R.Tensor((1, nonzero_numbers), dtype="int64") = lv
            R.output(gv)
        return gv
