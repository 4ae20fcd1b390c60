# passes: FoldBatchnormToConv2D
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def folded(x: R.Tensor((1, 1, 4, 4), dtype="float32")) -> R.Tensor((1, 2, 4, 4), dtype="float32"):
        with R.dataflow():
            w: R.Tensor((2, 1, 1, 1), dtype="float32") = R.const(np.array([[[[3.0]]], [[[4.0]]]], "float32"))
            c: R.Tensor((1, 2, 4, 4), dtype="float32") = R.nn.conv2d(x, w)
            bn: R.Tuple(R.Tensor((1, 2, 4, 4), dtype="float32"), R.Tensor((2,), dtype="float32"), R.Tensor((2,), dtype="float32")) = R.nn.batch_norm(c, R.const(np.array([2.0, 0.5], "float32")), R.const(np.array([1.0, -1.0], "float32")), R.const(np.array([0.5, 2.0], "float32")), R.const(np.array([3.0, 0.0], "float32")), axis=1, epsilon=1.0, training=False)
            n: R.Tensor((1, 2, 4, 4), dtype="float32") = bn[0]
            m: R.Tensor((2,), dtype="float32") = bn[1]
            y: R.Tensor((1, 2, 4, 4), dtype="float32") = R.nn.relu(n)
            R.output(y)
        return y

    @R.function
    def conv_read_twice(x: R.Tensor((1, 1, 4, 4), dtype="float32")) -> R.Tensor((1, 2, 4, 4), dtype="float32"):
        with R.dataflow():
            c: R.Tensor((1, 2, 4, 4), dtype="float32") = R.nn.conv2d(x, R.const(np.array([[[[3.0]]], [[[4.0]]]], "float32")))
            bn: R.Tuple(R.Tensor((1, 2, 4, 4), dtype="float32"), R.Tensor((2,), dtype="float32"), R.Tensor((2,), dtype="float32")) = R.nn.batch_norm(c, R.const(np.array([2.0, 0.5], "float32")), R.const(np.array([1.0, -1.0], "float32")), R.const(np.array([0.5, 2.0], "float32")), R.const(np.array([3.0, 0.0], "float32")), axis=1, epsilon=1.0, training=False)
            n: R.Tensor((1, 2, 4, 4), dtype="float32") = bn[0]
            y: R.Tensor((1, 2, 4, 4), dtype="float32") = R.add(n, c)
            R.output(y)
        return y

    @R.function
    def statistics_read(x: R.Tensor((1, 1, 4, 4), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        with R.dataflow():
            c: R.Tensor((1, 2, 4, 4), dtype="float32") = R.nn.conv2d(x, R.const(np.array([[[[3.0]]], [[[4.0]]]], "float32")))
            bn: R.Tuple(R.Tensor((1, 2, 4, 4), dtype="float32"), R.Tensor((2,), dtype="float32"), R.Tensor((2,), dtype="float32")) = R.nn.batch_norm(c, R.const(np.array([2.0, 0.5], "float32")), R.const(np.array([1.0, -1.0], "float32")), R.const(np.array([0.5, 2.0], "float32")), R.const(np.array([3.0, 0.0], "float32")), axis=1, epsilon=1.0, training=False)
            n: R.Tensor((1, 2, 4, 4), dtype="float32") = bn[0]
            m: R.Tensor((2,), dtype="float32") = bn[1]
            R.output(m)
        return m

    @R.function
    def weights_not_constant(x: R.Tensor((1, 1, 4, 4), dtype="float32"), w: R.Tensor((2, 1, 1, 1), dtype="float32")) -> R.Tensor((1, 2, 4, 4), dtype="float32"):
        with R.dataflow():
            c: R.Tensor((1, 2, 4, 4), dtype="float32") = R.nn.conv2d(x, w)
            bn: R.Tuple(R.Tensor((1, 2, 4, 4), dtype="float32"), R.Tensor((2,), dtype="float32"), R.Tensor((2,), dtype="float32")) = R.nn.batch_norm(c, R.const(np.array([2.0, 0.5], "float32")), R.const(np.array([1.0, -1.0], "float32")), R.const(np.array([0.5, 2.0], "float32")), R.const(np.array([3.0, 0.0], "float32")), axis=1, epsilon=1.0, training=False)
            n: R.Tensor((1, 2, 4, 4), dtype="float32") = bn[0]
            R.output(n)
        return n

    @R.function
    def negative_variance(x: R.Tensor((1, 1, 4, 4), dtype="float32")) -> R.Tensor((1, 2, 4, 4), dtype="float32"):
        with R.dataflow():
            c: R.Tensor((1, 2, 4, 4), dtype="float32") = R.nn.conv2d(x, R.const(np.array([[[[3.0]]], [[[4.0]]]], "float32")))
            bn: R.Tuple(R.Tensor((1, 2, 4, 4), dtype="float32"), R.Tensor((2,), dtype="float32"), R.Tensor((2,), dtype="float32")) = R.nn.batch_norm(c, R.const(np.array([2.0, 0.5], "float32")), R.const(np.array([1.0, -1.0], "float32")), R.const(np.array([0.5, 2.0], "float32")), R.const(np.array([3.0, -2.0], "float32")), axis=1, epsilon=1.0, training=False)
            n: R.Tensor((1, 2, 4, 4), dtype="float32") = bn[0]
            R.output(n)
        return n

    @R.function
    def importer_form(x: R.Tensor((1, 1, 4, 4), dtype="float32")) -> R.Tensor((1, 2, 4, 4), dtype="float32"):
        with R.dataflow():
            c: R.Tensor((1, 2, 4, 4), dtype="float32") = R.nn.conv2d(x, R.const(np.array([[[[3.0]]], [[[4.0]]]], "float32")))
            p: R.Tensor((1, 2, 4, 4), dtype="float32") = R.multiply(R.const(np.array([[[[0.5]], [[-2.0]]]], "float32")), c)
            q: R.Tensor((1, 2, 4, 4), dtype="float32") = R.add(p, R.const(np.array([[[[1.0]], [[2.0]]]], "float32")))
            y: R.Tensor((1, 2, 4, 4), dtype="float32") = R.nn.relu(q)
            R.output(y)
        return y

    @R.function
    def bias_before_the_norm(x: R.Tensor((1, 1, 4, 4), dtype="float32")) -> R.Tensor((1, 2, 4, 4), dtype="float32"):
        with R.dataflow():
            c: R.Tensor((1, 2, 4, 4), dtype="float32") = R.nn.conv2d(x, R.const(np.array([[[[3.0]]], [[[4.0]]]], "float32")))
            s: R.Tensor((1, 2, 4, 4), dtype="float32") = R.add(R.const(np.array([[[[0.25]], [[-1.0]]]], "float32")), c)
            p: R.Tensor((1, 2, 4, 4), dtype="float32") = R.multiply(s, R.const(np.array([[[[0.5]], [[-2.0]]]], "float32")))
            q: R.Tensor((1, 2, 4, 4), dtype="float32") = R.add(p, R.const(np.array([[[[1.0]], [[2.0]]]], "float32")))
            R.output(q)
        return q

    @R.function
    def norm_then_scale(x: R.Tensor((1, 1, 4, 4), dtype="float32")) -> R.Tensor((1, 2, 4, 4), dtype="float32"):
        with R.dataflow():
            c: R.Tensor((1, 2, 4, 4), dtype="float32") = R.nn.conv2d(x, R.const(np.array([[[[3.0]]], [[[4.0]]]], "float32")))
            bn: R.Tuple(R.Tensor((1, 2, 4, 4), dtype="float32"), R.Tensor((2,), dtype="float32"), R.Tensor((2,), dtype="float32")) = R.nn.batch_norm(c, R.const(np.array([2.0, 0.5], "float32")), R.const(np.array([1.0, -1.0], "float32")), R.const(np.array([0.5, 2.0], "float32")), R.const(np.array([3.0, 0.0], "float32")), axis=1, epsilon=1.0, training=False)
            n: R.Tensor((1, 2, 4, 4), dtype="float32") = bn[0]
            p: R.Tensor((1, 2, 4, 4), dtype="float32") = R.multiply(n, R.const(np.array([[[2.0]], [[0.5]]], "float32")))
            q: R.Tensor((1, 2, 4, 4), dtype="float32") = R.add(p, R.const(np.array([[[1.0]], [[2.0]]], "float32")))
            R.output(q)
        return q

    @R.function
    def bias_read_twice(x: R.Tensor((1, 1, 4, 4), dtype="float32")) -> R.Tensor((1, 2, 4, 4), dtype="float32"):
        with R.dataflow():
            c: R.Tensor((1, 2, 4, 4), dtype="float32") = R.nn.conv2d(x, R.const(np.array([[[[3.0]]], [[[4.0]]]], "float32")))
            s: R.Tensor((1, 2, 4, 4), dtype="float32") = R.add(c, R.const(np.array([[[[0.25]], [[-1.0]]]], "float32")))
            p: R.Tensor((1, 2, 4, 4), dtype="float32") = R.multiply(s, R.const(np.array([[[[0.5]], [[-2.0]]]], "float32")))
            q: R.Tensor((1, 2, 4, 4), dtype="float32") = R.add(p, s)
            R.output(q)
        return q

    @R.function
    def scale_not_per_channel(x: R.Tensor((1, 1, 4, 4), dtype="float32")) -> R.Tensor((1, 2, 4, 4), dtype="float32"):
        with R.dataflow():
            c: R.Tensor((1, 2, 4, 4), dtype="float32") = R.nn.conv2d(x, R.const(np.array([[[[3.0]]], [[[4.0]]]], "float32")))
            p: R.Tensor((1, 2, 4, 4), dtype="float32") = R.multiply(c, R.const(np.array([[[[0.5, 1.0, 2.0, 4.0]]]], "float32")))
            R.output(p)
        return p
