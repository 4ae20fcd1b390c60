from tvm.script import ir as I
from tvm.script import relax as R

# a model written by hand


@I.ir_module
class Module:  # the module
    # the entry point
    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        # first a dataflow block
        with R.dataflow():
            a = R.exp(x)  # exponent
            # then a sum
            b = R.add(a, x)
            R.output(b)
        # done
        return b
# trailing comment
