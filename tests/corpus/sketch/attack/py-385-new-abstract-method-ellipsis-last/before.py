import abc


class Base(abc.ABC):
    @abc.abstractmethod
    def run(self):
        raise NotImplementedError
