@I.ir_module
class ExpectedRank3:
    @R.function
    def main(x: R.Tensor((4, 5, 6), dtype="bool")):
        nonzero_numbers = T.int64()
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv: R.Tensor((3, nonzero_numbers), dtype="int64") = R.match_cast(
                R.nonzero(x), R.Tensor((3, nonzero_numbers), dtype="int64")
            )
            gv: R.Tensor((3, nonzero_numbers), dtype="int64") = lv
            R.output(gv)
        return gv
