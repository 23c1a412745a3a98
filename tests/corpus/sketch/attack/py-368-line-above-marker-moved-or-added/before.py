def f():
    setup()
    run()
    cleanup()


def g():
    pass
