# finding: R.argmax/R.argmin of a rank-0 tensor panicked in LegalizeOps (an index into the empty list of reduced axes)
# opfuzz: argreduce, seed 67
# arg: float64 []
# inputs: seed 4830145576590041
# compare: exact
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((), dtype="float64")):
        with R.dataflow():
            t0 = R.argmax(x, axis=None, keepdims=True)
            y = t0
            R.output(y)
        return y
