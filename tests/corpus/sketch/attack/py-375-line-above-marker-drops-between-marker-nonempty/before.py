def run():
    open_()
    write()
    flush()
    close()


def other():
    pass
