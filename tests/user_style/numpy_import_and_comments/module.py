# a user file: real imports, numpy too
import numpy as np
import tvm
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 2), "float32")):
        # numpy is imported but only scalars are used here
        return R.power(R.abs(x), R.const(0.5, "float32"))
