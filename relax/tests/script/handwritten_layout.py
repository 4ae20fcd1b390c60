# R.layout_transform with T.index_map(lambda ...): parameters scoped to their lambda (a name may
# repeat across lambdas, and a parameter named like a symbolic variable is renamed when
# printed), results that use the function's symbolic variables, a body that is not a tuple,
# pad values, omitted and explicit axis separators.
@I.ir_module
class Module:
    @R.function
    def static(x: R.Tensor((10, 20, 30), "float32"), y: R.Tensor((16,), "int32")):
        a = R.layout_transform(x, index_map=T.index_map(lambda a, b, c: (a, c, b // 3, b % 3)), pad_value=R.prim_value(T.float32(2)), axis_separators=[])
        b = R.layout_transform(y, T.index_map(lambda i: (i // 4, i % 4)))
        c = R.layout_transform(b, index_map=T.index_map(lambda i, j: i * 4 + j), pad_value=R.prim_value(T.int32(-1)), axis_separators=[1], input_axis_separators=[1])
        d = R.layout_transform(c, index_map=T.index_map(lambda i: (i % 4 * 4 + i // 4,), index_dtype="int64"), pad_value=None)
        return (a, b, c, d)

    @R.function
    def symbolic(x: R.Tensor(("n", "c", 8, 8), "float32"), s: R.Tensor(("m",), "float32")):
        n = T.int64()
        c = T.int64()
        m = T.int64()
        y = R.layout_transform(x, index_map=T.index_map(lambda n, c, h, w: (n, c // 16, h, w, c % 16)), pad_value=None, axis_separators=[])
        z = R.layout_transform(y, index_map=T.index_map(lambda n_1, c_1, h, w, c16: (n_1, c_1 * 16 + c16, h, w)), pad_value=None, axis_separators=[])
        t = R.layout_transform(s, index_map=T.index_map(lambda i: (i // m, i % m)), pad_value=None, axis_separators=[])
        return (y, z, t)
