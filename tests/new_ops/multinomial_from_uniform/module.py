# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(prob: R.Tensor((3, 5), dtype="float32"), u: R.Tensor((5, 1), dtype="float32"), rows: R.Tensor((5, 1), dtype="int64")) -> R.Tensor((5, 1), dtype="int64"):
        with R.dataflow():
            gv: R.Tensor((5, 1), dtype="int64") = R.multinomial_from_uniform(prob, u, rows, dtype="int64")
            R.output(gv)
        return gv
